export default function (pi: any) { pi.registerCommand("pkgc-cmd", { description: "from pkgc", handler: async () => {} }); }
