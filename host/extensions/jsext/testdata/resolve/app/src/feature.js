export const name = "feature";
