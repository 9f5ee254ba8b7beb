module.exports = require("dual").name + "+" + require("#cond").name;
