exports.name = "r";
