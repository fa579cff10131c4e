import BloodMagicLua

/// A Swift class exposed to fuzzed scripts, with a member of every kind the
/// bridge has: stored properties read in C (integer, float, boolean), a
/// string read from Swift, a `let`, a computed property, an optional object,
/// typed methods and a method that reads `LuaArguments`. Arithmetic wraps,
/// so that no value a script passes can trap in the fuzzer's own code.
final class FuzzGauge: LuaExposable {
    var level = 3
    var ratio = 0.5
    var flag = false
    var label = "gauge"
    let serial = 7
    var doubled: Int {
        get { level &* 2 }
        set { level = newValue / 2 }
    }
    var peer: FuzzGauge?
}

extension FuzzTargets {
    /// Exposes ``FuzzGauge`` (global class `Gauge`) and sets the global
    /// `gauge` to one of its objects.
    static func exposeFuzzTypes(to host: ScriptHost) {
        host.expose(
            LuaExposedType(FuzzGauge.self, name: "Gauge")
                .constructor { _ in FuzzGauge() }
                .property("level", \.level)
                .property("ratio", \.ratio)
                .property("flag", \.flag)
                .property("label", \.label)
                .property("serial", \.serial)
                .property("doubled", \.doubled)
                .property("peer", get: { $0.peer }, set: { $0.peer = $1 })
                .method("add", arguments: ["n"]) { (gauge, n: Int) -> Int in
                    gauge.level = gauge.level &+ n
                    return gauge.level
                }
                .method("scale", arguments: ["by", "label?"]) { (gauge, by: Double, label: String?) in
                    gauge.ratio *= by
                    if let label { gauge.label = label }
                }
                .method("link", arguments: ["other"]) { (gauge, other: FuzzGauge) in gauge.peer = other }
                .method("three", arguments: ["a", "b", "c"]) { (_: FuzzGauge, a: Int, b: Bool, c: String) in
                    "\(a) \(b) \(c.count)"
                }
                .method("sum", arguments: ["n?"]) { gauge, args in
                    (args.isNil(1) ? 0 : try args.get(1, as: Int.self)) &+ gauge.level
                })
        host.setGlobal("gauge", FuzzGauge())
    }
}
