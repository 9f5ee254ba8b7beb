const t = setTimeout(() => {}, 1000);
const out = [typeof t, typeof t.unref, t.hasRef(), t.unref() === t, t.hasRef(), t.ref().hasRef(), typeof +t, +t > 0, `${t}` === String(+t), Object.prototype.toString.call(t)];
clearTimeout(+t);
const i = setInterval(() => {}, 1000);
clearTimeout(i);
const im = setImmediate(() => {});
out.push(typeof im.unref, im.hasRef(), im.unref().hasRef(), Object.prototype.toString.call(im));
clearImmediate(im);
module.exports = new Promise((resolve) => {
  const order = [];
  const a = setTimeout(() => order.push("cleared by id"), 1);
  clearTimeout(Number(a));
  const c = setTimeout(() => order.push("cleared by object"), 1);
  clearInterval(c);
  const b = setInterval(() => {
    order.push("interval");
    clearInterval(b);
    const d = setTimeout(() => {
      order.push("refreshed");
      resolve([...out, order]);
    }, 20);
    d.refresh();
  }, 1);
});
