import BloodMagic
import Foundation
import Testing
import TestSupport

private final class HeaderView: Decodable {
    let title: String
    let height: Int
}

private struct FooterView: Decodable {
    let text: String
}

private final class UserCell {
    @Partial(provider: PartialTests.provider) var headerView: HeaderView
    @Partial(provider: PartialTests.provider) var footerView: FooterView
    @Partial var viaRegistry: HeaderView
}

private let templatesDirectory: URL = {
    let directory = ScratchPaths.url("bm-templates")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try? Data(#"{"title": "Users", "height": 44}"#.utf8).write(to: directory.appendingPathComponent("HeaderView.json"))
    return directory
}()

@Suite struct PartialTests {
    static var provider: JSONTemplateProvider { JSONTemplateProvider(directory: templatesDirectory) }

    @Test func instantiatesFromTheTemplateNamedAfterTheTypeAndCachesPerObject() {
        let cell = UserCell()
        let header = cell.headerView
        #expect(header.title == "Users")
        #expect(header.height == 44)
        #expect(cell.headerView === header)
        #expect(UserCell().headerView !== header)
    }

    @Test func aMissingTemplateNamesTheFileItLookedFor() {
        let error = #expect(throws: SpellError.self) { try UserCell().$footerView.value() }
        let file = templatesDirectory.appendingPathComponent("FooterView.json").path
        #expect(error?.description == "UserCell.footerView: no template for FooterView (looked for \(file))")
    }

    @Test func providersCanBeRegisteredInTheRegistry() throws {
        let registry = Registry()
        let error = #expect(throws: SpellError.self) {
            try Registry.withCurrent(registry) { try UserCell().$viaRegistry.value() }
        }
        #expect(error?.description == "UserCell.viaRegistry: no template for HeaderView (no template provider is registered)")
        registry.registerTemplateProvider(PartialTests.provider)
        #expect(registry.entries.first?.kind == .partialTemplate)
        let header = try Registry.withCurrent(registry) { try UserCell().$viaRegistry.value() }
        #expect(header.title == "Users")
    }
}
