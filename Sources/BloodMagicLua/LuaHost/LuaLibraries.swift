import CLua
import CLuaHost

/// The standard libraries a ``LuaState`` opens.
///
/// The default, ``safe``, is a sandbox: base without `dofile` and `loadfile`
/// and with `load` limited to text chunks; table; string without
/// `string.dump`; math; utf8; coroutine; `os` limited to time, clock and date;
/// and `require` for Lua modules in the module directory only
/// (``LuaStack/setModuleDirectory(_:)``; no `package.path`, `cpath`,
/// `searchers`, `searchpath` or `loadlib`). There is no io and no debug
/// library. In the sandbox, `string.find`, `match`, `gmatch`, `gsub` and
/// `rep`, the loops of the table library and `setmetatable` are
/// BloodMagic's own: they behave as Lua's, and keep their work (and `__gc`
/// finalizers) within the state's ``LuaLimits``. ``unsafe`` opens the full
/// standard library, Lua's own functions, instead.
public struct LuaLibraries: OptionSet, Sendable, Hashable {
    public let rawValue: Int32
    /// Creates a set from its raw flags.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The base library, without dofile and loadfile, with `load` for text chunks only.
    public static let base = LuaLibraries(rawValue: Int32(BM_LIB_BASE))
    /// The table library.
    public static let table = LuaLibraries(rawValue: Int32(BM_LIB_TABLE))
    /// The string library, without `string.dump`.
    public static let string = LuaLibraries(rawValue: Int32(BM_LIB_STRING))
    /// The math library.
    public static let math = LuaLibraries(rawValue: Int32(BM_LIB_MATH))
    /// The utf8 library.
    public static let utf8 = LuaLibraries(rawValue: Int32(BM_LIB_UTF8))
    /// The coroutine library.
    public static let coroutine = LuaLibraries(rawValue: Int32(BM_LIB_COROUTINE))
    /// `os.time`, `os.clock` and `os.date` only.
    public static let os = LuaLibraries(rawValue: Int32(BM_LIB_OS))
    /// `require` for Lua modules in the module directory, whatever `package.path`
    /// says; no C modules, no `package.loadlib` or `package.searchpath`.
    public static let package = LuaLibraries(rawValue: Int32(BM_LIB_PACKAGE))
    /// The full standard library: io, os, package, debug and all of base.
    public static let unsafe = LuaLibraries(rawValue: Int32(BM_LIB_UNSAFE))

    /// The sandbox: every library above except ``unsafe``.
    public static let safe: LuaLibraries = [.base, .table, .string, .math, .utf8, .coroutine, .os, .package]
}

/// Limits that a ``LuaState`` enforces.
///
/// Exceeding any of them raises a Lua error that names the limit; the state
/// stays usable afterwards. The limits bind C code too: the sandbox's string
/// and table functions charge their work to the instruction budget and read
/// the clock, the allocator charges what a run allocates, and `__gc`
/// metamethods run under the same limits (see the article *How the Lua host
/// stays safe*).
public struct LuaLimits: Sendable, Hashable {
    /// The most bytes the state may hold at once, or nil for no limit.
    /// What Swift keeps for a script (registrations made through `bm`) is
    /// charged to it too.
    public var maxMemory: Int?
    /// The most work one top-level run may do, in VM instructions, or nil for
    /// no limit. Work in C counts too: a step of the pattern matcher or of a
    /// table loop is one instruction, and so are 64 bytes allocated.
    public var maxInstructions: Int?
    /// The longest one top-level run may take, by the wall clock, or nil for
    /// no limit (kept to the nanosecond).
    public var maxTime: Duration?

    /// Creates limits; nil means unlimited.
    public init(maxMemory: Int? = nil, maxInstructions: Int? = nil, maxTime: Duration? = nil) {
        self.maxMemory = maxMemory
        self.maxInstructions = maxInstructions
        self.maxTime = maxTime
    }

    /// No limits.
    public static let none = LuaLimits()

    /// Parses a size such as `16M`, `512K`, `1G`, `2MiB` or `1048576` (bytes).
    public static func parseSize(_ text: String) -> Int? {
        var digits = text.trimmingCharacters(in: .whitespaces).uppercased()
        if digits.hasSuffix("IB") {
            digits.removeLast(2)
        } else if digits.hasSuffix("B") {
            digits.removeLast()
        }
        var factor = 1
        if let unit = digits.last, let shift = ["K": 10, "M": 20, "G": 30][String(unit)] {
            factor = 1 << shift
            digits.removeLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Int(digits), value >= 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        return overflow ? nil : product
    }
}

import Foundation
