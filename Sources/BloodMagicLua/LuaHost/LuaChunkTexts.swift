import CLua
import CLuaHost

/// The texts of the chunks a state loaded, by chunk name (`@path`): the only
/// source of positions that need a chunk's text, such as the line of a
/// definition table's field (see ``LuaSourceIndex``).
///
/// A chunk name is a claim, not a file: a script may load any text under
/// any name (`load(code, "@/etc/passwd")`). Reading the file a name claims
/// would open paths outside the sandbox (`/proc/self/pagemap` reads without
/// end, a link to a device passes a size check made on the link), and the
/// line an error reports would tell the script which line of that file
/// holds a word. So the host never opens a file to find a position. It
/// looks in two records of what was loaded:
///
/// - this one, of the texts the host itself loaded (``LuaStack/load(script:name:)``
///   and the other loads from Swift: startup scripts, `partials/`
///   templates, the script bmlua runs), which Swift holds anyway;
/// - the sandbox's, of what scripts had loaded: the text a script gave to
///   `load` and the module files `require` read, kept as Lua strings in the
///   registry (CLuaHost, `chunk_texts.c`), so the memory limit counts them.
///
/// A name recorded with two different texts (in either record, or one in
/// each) gives no text: a frame of that name could run either. A chunk with
/// no recorded text (a `load` from a function, an unsafe state's own
/// `require`) keeps the line Lua reports.
///
/// The indexes made from the texts are kept by name: a checkpoint every
/// 4 KiB of text (see ``LuaSourceIndex``), so at most about 0.4 % of the
/// texts, which the limits already count. Making one reads the text once;
/// each answer reads from the checkpoint before the call to the call's end:
/// both are charged to the running script's instruction budget, a unit a
/// byte.
struct LuaChunkTexts {
    /// What the host recorded for a name.
    enum Entry {
        case text([UInt8])
        case ambiguous
    }

    private var entries: [String: Entry] = [:]
    /// Indexes made so far, with the address of the sandbox's text they were
    /// made with (nil when they were made from the host's alone).
    /// (nil: the two records hold different texts).
    private var indexes: [String: (sandboxText: UnsafeRawPointer?, index: LuaSourceIndex?)] = [:]

    /// Texts larger than this are neither recorded nor indexed.
    static let largestText = 64 << 20

    /// Records `text` as what the chunk `name` was loaded from (only names
    /// starting with `@`). The array is shared with the caller's, not copied.
    mutating func record(_ text: [UInt8], name: String) {
        guard name.utf8.first == UInt8(ascii: "@") else { return }
        switch entries[name] {
        case nil:
            entries[name] = text.count <= Self.largestText ? .text(text) : .ambiguous
        case .text(let known) where known == text:
            return
        case .text:
            entries[name] = .ambiguous
        case .ambiguous:
            return
        }
        indexes[name] = nil
    }

    /// The host's entry for `name`.
    func entry(_ name: String) -> Entry? { entries[name] }

    /// What was kept for `name` with the sandbox's text at `sandboxText`:
    /// nil when nothing was, `.some(nil)` when the texts differed.
    func index(_ name: String, sandboxText: UnsafeRawPointer?) -> LuaSourceIndex?? {
        guard let kept = indexes[name], kept.sandboxText == sandboxText else { return nil }
        return .some(kept.index)
    }

    mutating func keep(_ index: LuaSourceIndex?, for name: String, sandboxText: UnsafeRawPointer?) {
        indexes[name] = (sandboxText, index)
    }
}

extension LuaStack {
    /// Records what the chunk `name` was loaded from (see ``LuaChunkTexts``).
    func recordChunkText(_ text: [UInt8], name: String) {
        guard name.utf8.first == UInt8(ascii: "@") else { return }
        LuaStateCore.of(L).chunkTexts.record(text, name: name)
    }

    /// The line of field `key` in the table the call on `line` of the chunk
    /// named `chunk` (`@path`) passes, found in the text the chunk was loaded
    /// from; `line` itself when there is no such field or no recorded text.
    /// Linear in the bytes read, which are charged to the running budget.
    func line(ofField key: String, chunk: String, line: Int) -> Int {
        foundLine(ofField: key, chunk: chunk, line: line) ?? line
    }

    /// As ``line(ofField:chunk:line:)``, nil when the call there passes no
    /// table literal with the field `key`.
    func foundLine(ofField key: String, chunk: String, line: Int) -> Int? {
        guard line > 0 else { return nil }
        return withChunkText(chunk) { bytes, index in
            let (found, scanned) = index.line(ofField: key, inCallAt: line, in: bytes)
            chargeReading(scanned)
            return found
        }
    }

    /// `"file:line"` moved to the line of field `key` of the call there
    /// (the text of the chunk `@file`), or `source` unchanged.
    func position(ofField key: String, at source: String) -> String {
        guard let (file, line) = LuaError.parseLocation(source + ":") else { return source }
        return "\(file):\(self.line(ofField: key, chunk: "@" + file, line: line))"
    }

    /// Runs `body` with the text the chunk `name` was loaded from and its
    /// index, when exactly one text is recorded for it; nil otherwise.
    private func withChunkText<T>(_ name: String, _ body: (UnsafeRawBufferPointer, LuaSourceIndex) -> T?) -> T? {
        let core = LuaStateCore.of(L)
        let host = core.chunkTexts.entry(name)
        if case .ambiguous? = host { return nil }
        ensureSpace(3)
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        // The sandbox's record: raw reads, nothing that can raise (the
        // allocator does not refuse while Swift holds the state).
        var sandbox: UnsafeRawBufferPointer?
        if lua_getfield(L, LUA_REGISTRYINDEX, BM_CHUNK_TEXTS_KEY) == LUA_TTABLE {
            push(name)
            switch lua_rawget(L, -2) {
            case LUA_TSTRING:
                var length = 0
                if let text = lua_tolstring(L, -1, &length) { sandbox = UnsafeRawBufferPointer(start: text, count: length) }
            case LUA_TBOOLEAN:
                return nil
            default:
                break
            }
        }
        var hostText: [UInt8]?
        if case .text(let text)? = host { hostText = text }
        // An index kept for this pair of records was made after the texts
        // were found equal (recording a new host text drops it).
        let key = sandbox?.baseAddress
        func run(_ bytes: UnsafeRawBufferPointer) -> T? {
            if let kept = core.chunkTexts.index(name, sandboxText: key) { return kept.flatMap { body(bytes, $0) } }
            if let hostText, let sandbox {
                chargeReading(sandbox.count)
                guard sandbox.elementsEqual(hostText) else {
                    core.chunkTexts.keep(nil, for: name, sandboxText: key)
                    return nil
                }
            }
            let index = LuaSourceIndex(checkpointsOf: bytes)
            chargeReading(bytes.count)
            core.chunkTexts.keep(index, for: name, sandboxText: key)
            return body(bytes, index)
        }
        if let sandbox {
            guard sandbox.count <= LuaChunkTexts.largestText else { return nil }
            return run(sandbox)
        }
        return hostText?.withUnsafeBytes { run($0) }
    }

    /// Charges reading `bytes` bytes of a chunk's text to the running
    /// budget, a unit a byte: only the count is lowered (nothing raises
    /// here); the count hook ends the run at its next check when the budget
    /// is spent.
    private func chargeReading(_ bytes: Int) {
        let block = limitsBlock
        guard block.pointee.instruction_limit > 0 else { return }
        block.pointee.instructions_left -= Int64(bytes)
    }
}
