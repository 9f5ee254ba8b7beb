// A factory that never finishes: the extension misses its load deadline.
export default async function (_pi: any) {
  await new Promise(() => {});
}
