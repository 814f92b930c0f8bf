/// Which response a recorded agent track (a far-end reference) is playing, tick by tick: the
/// responses are the reference's stretches of sound split at gaps of `responseGapMs`; after a
/// barge-in (`flush`) the response is muted until its next phrase (a gap of `phraseGapMs`) that
/// starts while the user is not speaking — the agent answering after the interruption, a new
/// response. Shared by the session simulator's recorded mode and `vad tune`'s barge-in replay
/// (`VADBargeInReplay`), so that both count barge-ins by the same definitions.
struct RecordedResponses {
    /// The responses and phrase starts, device samples.
    let responses: [Range<Int>]
    let phraseStarts: [Int]
    /// The id of the latest response (−1: none yet), and the device sample where it began to play.
    private(set) var id: Int64 = -1
    private(set) var idStart = 0
    /// The device sample where the fade after a barge-in began (nil: not muted).
    private(set) var mutedFrom: Int?
    private var lastResponse: Int?
    private var nextPhrase = 0
    /// The responses before it ended before the current tick.
    private var nextResponse = 0

    static let phraseGapMs = 250.0

    init(levels: FrameLevels.Measured, count: Int, responseGapMs: Double) {
        responses = ResponseSplitter.split(levels: levels, count: count, gapMs: responseGapMs)
        phraseStarts = ResponseSplitter.split(levels: levels, count: count, gapMs: Self.phraseGapMs).map(\.lowerBound)
    }

    /// Moves to the tick `tick` (device samples, in order): returns the response (an index into
    /// `responses`) holding the tick's first or last sample, if any, and starts a new id when a new
    /// response begins or a muted one resumes at a new phrase while `userSpeaking` is false.
    mutating func advance(_ tick: Range<Int>, userSpeaking: Bool) -> Int? {
        let r = Self.response(holdingEndsOf: tick, in: responses, from: &nextResponse)
        var newPhrase = false
        while nextPhrase < phraseStarts.count && phraseStarts[nextPhrase] < tick.upperBound {
            newPhrase = true
            nextPhrase += 1
        }
        if let r, r != lastResponse || (mutedFrom != nil && newPhrase && !userSpeaking) {
            id += 1  // a new response, or the agent answering after the interruption
            idStart = r != lastResponse ? responses[r].lowerBound : tick.lowerBound
            mutedFrom = nil
        }
        lastResponse = r ?? lastResponse
        return r
    }

    /// The response in progress for a tick `advance` returned `r` for (nil: none, or muted).
    func playing(_ r: Int?) -> Int64? { r != nil && mutedFrom == nil ? id : nil }

    /// A barge-in flushed the response: muted from device sample `sample` on.
    mutating func flush(at sample: Int) { mutedFrom = sample }

    /// The first of `responses` (sorted, disjoint) that holds the tick's first or last sample;
    /// `from` moves past those that ended before the tick (the ticks come in order).
    static func response(holdingEndsOf tick: Range<Int>, in responses: [Range<Int>], from: inout Int) -> Int? {
        while from < responses.count && responses[from].upperBound <= tick.lowerBound { from += 1 }
        var k = from
        while k < responses.count && responses[k].lowerBound < tick.upperBound {
            if responses[k].contains(tick.lowerBound) || responses[k].contains(tick.upperBound - 1) { return k }
            k += 1
        }
        return nil
    }
}
