// A minimal HTTP/1.1 GET over a plain socket to 127.0.0.1: enough to talk
// to the server under test without building an HTTP client library.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One response: its status and body.
struct HTTPReply: CustomStringConvertible {
    var status: Int
    var body: String

    /// The body as a JSON object (nil when it is not one).
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
    }

    var description: String { "\(status) \(body)" }
}

enum LoopbackHTTP {
    /// `GET path` on 127.0.0.1:`port`, `Connection: close`, reading until
    /// the server closes; each socket operation times out after `timeout`.
    static func get(_ path: String, port: Int, timeout: TimeInterval = 5) throws -> HTTPReply {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw ServerTestError("socket: errno \(errno)") }
        defer { close(fd) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw ServerTestError("connect to 127.0.0.1:\(port): errno \(errno)") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw ServerTestError("send: errno \(errno)") }
            sent += count
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else { throw ServerTestError("recv from \(path): errno \(errno)") }
            response.append(contentsOf: buffer[0..<count])
        }
        return try parse(String(decoding: response, as: UTF8.self), path: path)
    }

    /// Status line and body of a response with a `Content-Length` (what
    /// Hummingbird sends for these JSON bodies).
    private static func parse(_ text: String, path: String) throws -> HTTPReply {
        guard let end = text.range(of: "\r\n\r\n") else { throw ServerTestError("no header end in the reply to \(path): \(text)") }
        let head = text[..<end.lowerBound].split(separator: "\r\n")
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw ServerTestError("bad status line in the reply to \(path): \(text)")
        }
        return HTTPReply(status: status, body: String(text[end.upperBound...]))
    }
}
