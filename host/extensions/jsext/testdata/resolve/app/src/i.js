export const name = "i";
