// The agent core package: extensions import only its types.
"use strict";
module.exports = { __esModule: true };
