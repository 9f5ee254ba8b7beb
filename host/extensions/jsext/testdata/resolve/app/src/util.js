export const name = "util";
