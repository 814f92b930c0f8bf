import Foundation
import Testing
import _AudioPipelineTestSupport

/// The Swift in the DocC articles cannot rot: every ```swift listing of an article under
/// `Sources/*/*.docc` is, word for word, a region of a test file the article names
/// (`Tests/…/DocCExampleTests.swift`, between `// docc-begin: NAME` and `// docc-end`, dedented), so
/// it compiles and runs with `swift test`; every such region is shown by the article. A listing whose
/// first line is `// Package.swift` (a manifest excerpt, which no test can compile) is exempt.
@Suite struct DocCArticleTests {
    struct Article {
        let path: String
        let listings: [String]
        let testFiles: [String]
    }

    static func articles() throws -> [Article] {
        let fm = FileManager.default
        let sources = repositoryRoot + "/Sources"
        var articles: [Article] = []
        for module in try fm.contentsOfDirectory(atPath: sources).sorted() {
            let catalog = "\(sources)/\(module)/\(module).docc"
            guard let files = fm.enumerator(atPath: catalog)?.allObjects as? [String] else { continue }
            for file in files.sorted() where file.hasSuffix(".md") {
                let path = "\(catalog)/\(file)"
                let text = try String(contentsOfFile: path, encoding: .utf8)
                let testFiles = text.matches(of: /Tests\/[A-Za-z]+\/[A-Za-z]+\.swift/).map { String($0.output) }
                articles.append(Article(path: path, listings: listings(in: text), testFiles: Array(Set(testFiles))))
            }
        }
        return articles
    }

    /// The bodies of the ```swift fences of a Markdown text.
    static func listings(in text: String) -> [String] {
        var out: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                out.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return out
    }

    /// The `// docc-begin: NAME` … `// docc-end` regions of a Swift file, each dedented by its
    /// least-indented non-empty line.
    static func regions(in text: String) -> [String: String] {
        var out: [String: String] = [:]
        var name: String?
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// docc-begin:") {
                name = trimmed.dropFirst("// docc-begin:".count).trimmingCharacters(in: .whitespaces)
                lines = []
            } else if trimmed == "// docc-end", let n = name {
                let indented = lines.filter { !$0.allSatisfy(\.isWhitespace) }
                let indent = indented.map { $0.prefix { $0 == " " }.count }.min() ?? 0
                out[n] = lines.map { $0.allSatisfy(\.isWhitespace) ? "" : String($0.dropFirst(indent)) }
                    .joined(separator: "\n")
                name = nil
            } else if name != nil {
                lines.append(line)
            }
        }
        return out
    }

    @Test func everyListingIsARegionOfATestItNames() throws {
        let articles = try Self.articles()
        #expect(articles.filter { !$0.listings.isEmpty }.count >= 3, "the getting-started articles have code")
        var shown: [String: [String]] = [:]
        for article in articles {
            let checked = article.listings.filter { !$0.hasPrefix("// Package.swift") }
            guard !checked.isEmpty else { continue }
            #expect(!article.testFiles.isEmpty, "\(article.path) names no Tests/…/*.swift its code is in")
            var regions: [String: String] = [:]
            for file in article.testFiles {
                let text = try String(contentsOfFile: repositoryRoot + "/" + file, encoding: .utf8)
                regions.merge(Self.regions(in: text)) { a, _ in a }
                shown[file, default: []] += checked
            }
            for listing in checked {
                #expect(
                    regions.values.contains(listing),
                    "\(article.path): a listing is in no docc-begin region of \(article.testFiles):\n\(listing)")
            }
        }
        // And no region is left that no article shows (a listing edited in one place only).
        for (file, listings) in shown {
            let text = try String(contentsOfFile: repositoryRoot + "/" + file, encoding: .utf8)
            for (name, region) in Self.regions(in: text) where !listings.contains(region) {
                Issue.record("no article shows the region '\(name)' of \(file)")
            }
        }
    }

    @Test func theCheckerFindsListingsAndRegions() {
        let markdown = "Text\n\n```swift\nlet a = 1\n\nprint(a)\n```\n\n```sh\nls\n```\n"
        #expect(Self.listings(in: markdown) == ["let a = 1\n\nprint(a)"])
        let swift = "func f() {\n    // docc-begin: x\n    let a = 1\n\n    print(a)\n    // docc-end\n}\n"
        #expect(Self.regions(in: swift) == ["x": "let a = 1\n\nprint(a)"])
    }
}
