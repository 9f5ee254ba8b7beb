export const name: string = "ts-only";
