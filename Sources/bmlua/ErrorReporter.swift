import BloodMagic
import Foundation

/// Writes errors to standard error as `bmlua: file:line: message`, then the traceback.
struct ErrorReporter {
    func report(_ error: LuaError) {
        var text = "bmlua: \(error.message)\n"
        if let traceback = error.traceback, !traceback.isEmpty {
            text += traceback + "\n"
        }
        FileHandle.standardError.write(Data(text.utf8))
    }
}
