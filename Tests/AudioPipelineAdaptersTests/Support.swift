import AudioPipelineAdapters
import AudioPipelineCore
import Foundation
import _AudioPipelineTestSupport

/// Runs a tool (sox …) and returns its exit status; output is discarded.
@discardableResult
func run(_ tool: String, _ args: [String]) throws -> Int32 {
    try runTool("/usr/bin/env", [tool] + args).status
}
