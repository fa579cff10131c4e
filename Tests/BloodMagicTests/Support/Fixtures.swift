import BloodMagic
import Foundation
@_exported import TestSupport

protocol RequestClient: AnyObject {
    var label: String { get }
}

protocol Cancellable {}

final class HTTPClient: RequestClient, Cancellable {
    let label: String
    init(label: String) { self.label = label }
}

final class RequestManager: DefaultConstructible {
    let label: String
    init() { label = "default" }
    init(label: String) { self.label = label }
}

final class ProgressViewService {
    weak var owner: AnyObject?
    init(owner: AnyObject?) { self.owner = owner }
}
