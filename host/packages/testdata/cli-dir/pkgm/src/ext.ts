export default function (pi: any) { pi.registerCommand("pkgm-cmd", { description: "from pkgm", handler: async () => {} }); }
