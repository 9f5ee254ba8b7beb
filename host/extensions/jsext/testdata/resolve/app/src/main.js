export const name = "main";
