// Sends three messages without awaiting them.
export default function (pi: any) {
  pi.registerCommand("three", {
    description: "sends a, b and c",
    handler: async () => {
      pi.sendMessage({ customType: "a", content: "1" });
      pi.sendMessage({ customType: "b", content: "2" });
      pi.sendMessage({ customType: "c", content: "3" });
    },
  });
}
