-- expect: expected near
function (x) return x +
