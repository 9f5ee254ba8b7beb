export const name = "util-node";
