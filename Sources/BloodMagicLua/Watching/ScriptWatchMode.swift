/// How a ``ScriptHost`` (or `bmlua --watch`) notices that scripts changed.
public enum ScriptWatchMode: Sendable, Equatable {
    /// The system's file events: inotify on Linux, a Dispatch file-system
    /// source (kqueue) on macOS. Where they are not available, or cannot be
    /// set up (inotify's instance limit is reached), polling every 250 ms.
    case native
    /// Compares the files' metadata (device and inode, size, modification
    /// and status-change times, links followed) every `interval`.
    case polling(interval: Duration)

    /// The polling interval `.native` falls back to.
    public static let fallbackInterval: Duration = .milliseconds(250)
}
