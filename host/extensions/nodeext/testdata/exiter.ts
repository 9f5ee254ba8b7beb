// Ends the shared Node process in every tool_call.
export default function (pi: any) {
  pi.on("tool_call", async () => {
    process.exit(3);
  });
}
