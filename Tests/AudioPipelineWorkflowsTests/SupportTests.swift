import AudioPipelineCore
import AudioPipelineWorkflows
import Foundation
import Testing
import _AudioPipelineTestSupport

@Suite struct CSVFiles {
    @Test func writerQuotesWhatNeedsIt() {
        var w = CSVWriter(header: ["name", "value"])
        w.append(["a,b", "1"])
        w.append(["say \"hi\"", "2"])
        w.append(["two\nlines", "3"])
        #expect(w.text == "name,value\n\"a,b\",1\n\"say \"\"hi\"\"\",2\n\"two\nlines\",3\n")
    }

    @Test func readerNamesTheLineOfWhatItCannotRead() throws {
        #expect(throws: AudioPipelineError(.invalidData, "t.csv:3: quoted fields are not supported in this file")) {
            try CSVTable(text: "a,b\n1,2\n\"3\",4\n", path: "t.csv")
        }
        #expect(throws: AudioPipelineError(.invalidData, "t.csv:2: 1 fields, the header has 2")) {
            try CSVTable(text: "a,b\n1\n", path: "t.csv")
        }
        let t = try CSVTable(text: "a , b\r\n1,2\r\n\r\n3, 4\r\n", path: "t.csv", required: ["a", "b"])
        #expect(t.rows.map(\.line) == [2, 4] && t.field("b", in: t.rows[1]) == "4")
    }
}

@Suite struct TextInputs {
    @Test func linesStreamAcrossTheReadBufferWithCRLFAndALineTooLong() throws {
        let dir = TempDir()
        var text = ""
        for k in 0..<20_000 { text += "line \(k)\(k % 3 == 0 ? "\r" : "")\n" }
        text += String(repeating: "x", count: 300_000) + "\nlast"
        try text.write(toFile: dir.file("t.txt"), atomically: true, encoding: .utf8)
        let r = try LineReader(path: dir.file("t.txt"), what: "a test file", maximumLineBytes: 100_000)
        var lines: [String] = []
        var long: [(Int, Int)] = []
        try r.forEachLine { line in
            switch line {
            case .text(let b, _): lines.append(String(decoding: b, as: UTF8.self))
            case .tooLong(let bytes, let number): long.append((bytes, number))
            }
        }
        #expect(lines.count == 20_001 && lines[0] == "line 0" && lines[19_999] == "line 19999" && lines.last == "last")
        #expect(long.count == 1 && long[0] == (300_000, 20_001))
    }

    @Test func readsAFIFOAsItWouldStandardInput() throws {
        let dir = TempDir()
        let fifo = dir.file("p")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread { try? "a,b\n1,2\n".write(toFile: fifo, atomically: false, encoding: .utf8) }
        writer.start()
        let t = try CSVTable.read(fifo, what: "a pipe", required: ["a"])
        #expect(t.rows.count == 1)
    }

    @Test func errorsSayWhatIsWrong() {
        #expect(throws: AudioPipelineError(.inputUnavailable, "/no/such: no such file (the grid file)")) {
            try TextInput.text("/no/such", what: "the grid file")
        }
        #expect(throws: AudioPipelineError(.inputUnavailable, "/tmp: is a directory, not the grid file")) {
            try TextInput.text("/tmp", what: "the grid file")
        }
        #expect(
            throws: AudioPipelineError(
                .inputUnavailable,
                "/dev/zero: is a device, not a file or a pipe (it may never end); give the grid file as a file")
        ) {
            try TextInput.text("/dev/zero", what: "the grid file")
        }
        let dir = TempDir()
        _ = FileManager.default.createFile(atPath: dir.file("big.json"), contents: Data(count: (1 << 20) + 1))
        #expect(throws: AudioPipelineError(.invalidData, dir.file("big.json") + ": the grid file is larger than 1 MiB"))
        {
            try TextInput.text(dir.file("big.json"), what: "the grid file", limit: 1 << 20)
        }
    }
}

@Suite struct CheckedNumbers {
    @Test(arguments: [0.0, -1, 1e300, -1e300, .nan, .infinity, -.infinity, 0x1p63, 2.5])
    func extremesAreErrorsNotTraps(value: Double) {
        let ok = value == 0
        do {
            let v = try Checked.integer(value, in: 0...Int.max, "x.json: code")
            #expect(ok && v == 0)
        } catch {
            #expect(!ok && error.message.hasPrefix("x.json: code "), "\(error.message)")
        }
    }
}

@Suite struct AtomicOutputs {
    @Test func aFailedJobLeavesNothingAndAFinishedOneReplacesTheOldFile() throws {
        let dir = TempDir()
        try "old".write(toFile: dir.file("o.txt"), atomically: true, encoding: .utf8)
        do {
            let out = try ByteOutput(path: dir.file("o.txt"))
            try out.write("new")
            try out.flush()
            #expect(dir.contents.count == 2)
        }
        #expect(try String(contentsOfFile: dir.file("o.txt"), encoding: .utf8) == "old" && dir.contents == ["o.txt"])
        try ByteOutput.write("new", to: dir.file("o.txt"))
        #expect(try String(contentsOfFile: dir.file("o.txt"), encoding: .utf8) == "new" && dir.contents == ["o.txt"])
    }

    @Test func aReportDirectoryAppearsWholeOrNotAtAll() throws {
        let dir = TempDir()
        do {
            let r = try ReportDirectory(path: dir.file("rep"))
            try r.write("a.txt", "a")
            try r.write("sub/b.txt", "b")
        }
        #expect(dir.contents.isEmpty, "unpublished: gone")
        let r = try ReportDirectory(path: dir.file("rep"))
        try r.write("sub/b.txt", "b")
        try r.publish()
        #expect(dir.contents == ["rep"] && FileManager.default.fileExists(atPath: dir.file("rep/sub/b.txt")))
        let again = try ReportDirectory(path: dir.file("rep"))
        try again.write("c.txt", "c")
        try again.publish()
        #expect(
            dir.contents == ["rep"] && !FileManager.default.fileExists(atPath: dir.file("rep/sub")),
            "the old report is replaced")
    }

    @Test func writesToAFullDiskAreErrors() throws {
        let out = try ByteOutput(path: "/dev/full")
        try out.write("x")
        #expect(throws: AudioPipelineError.self) { try out.commit() }
    }
}

@Suite struct PrintedMessages {
    @Test func controlCharactersAreEscapedAndTheMessagesOwnLinesStay() {
        // An escape sequence, a carriage return and a C1 control in a name: escaped anywhere.
        #expect(MessageText.shown("x\u{1B}[2J\r\u{85}.wav: bad", arguments: []) == "x\\u{1b}[2J\\r\\u{85}.wav: bad")
        // A newline or tab from data (a name found in a directory, a list's field, an option's value)
        // is escaped; an indented continuation line of the message's own stays, tabs and all.
        #expect(MessageText.shown("/d/a\nb\tc.wav: cannot decode", arguments: []) == "/d/a\\nb\\tc.wav: cannot decode")
        #expect(MessageText.shown("header: input\ta", arguments: []) == "header: input\\ta")
        #expect(
            MessageText.shown("needs labels:\n  one a line:\n    1.25\t2.8\tspeech", arguments: [])
                == "needs labels:\n  one a line:\n    1.25\t2.8\tspeech")
        // An argument is escaped wholly, even a line break followed by spaces within it.
        let name = "/d/a\n  b.wav"
        #expect(
            MessageText.shown("\(name): cannot decode\n  hint", arguments: ["info", name])
                == "/d/a\\n  b.wav: cannot decode\n  hint")
        #expect(MessageText.shown("plain é ✓", arguments: ["x"]) == "plain é ✓")
    }
}

@Suite struct StandardOutputNames {
    @Test func namesOfStandardOutputDirectlyOrThroughLinks() throws {
        let dir = TempDir()
        for name in ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/dev//stdout", "/proc/\(getpid())/fd/1"] {
            #expect(StandardOutput.isStandardOutput(name), "\(name)")
        }
        try FileManager.default.createSymbolicLink(atPath: dir.file("out.wav"), withDestinationPath: "/dev/stdout")
        try FileManager.default.createSymbolicLink(atPath: dir.file("again.wav"), withDestinationPath: "out.wav")
        #expect(StandardOutput.isStandardOutput(dir.file("out.wav")))
        #expect(StandardOutput.isStandardOutput(dir.file("again.wav")), "a link to a link, relative")
        try FileManager.default.createSymbolicLink(atPath: dir.file("loop"), withDestinationPath: "loop")
        for name in ["/dev/stderr", "/dev/null", "/dev/fd/2", dir.file("loop"), dir.file("x.wav"), "-x"] {
            #expect(!StandardOutput.isStandardOutput(name), "\(name)")
        }
        #expect(StandardOutput.any([nil, "a.wav", "/dev/stdout"]) && !StandardOutput.any([nil, "a.wav"]))
    }
}

@Suite(.serialized) struct PublishingLast {
    /// Outputs committed inside `publishingLast` appear only when it returns; when it throws (a
    /// report that could not be written) they are removed; a batch inside publishes as it goes.
    @Test func outputsAppearWhenTheJobAndItsReportAreDone() throws {
        let dir = TempDir()
        try TemporaryFiles.publishingLast {
            try ByteOutput.write("a", to: dir.file("a.txt"))
            #expect(!FileManager.default.fileExists(atPath: dir.file("a.txt")), "held until the end")
            try TemporaryFiles.publishingEach { () throws(AudioPipelineError) in
                try ByteOutput.write("b", to: dir.file("b.txt"))
            }
            #expect(FileManager.default.fileExists(atPath: dir.file("b.txt")), "a batch's file is published at once")
        }
        #expect(try String(contentsOfFile: dir.file("a.txt"), encoding: .utf8) == "a")
        struct ReportFailed: Error {}
        try "old".write(toFile: dir.file("c.txt"), atomically: true, encoding: .utf8)
        #expect(throws: ReportFailed.self) {
            try TemporaryFiles.publishingLast {
                try ByteOutput.write("c", to: dir.file("c.txt"))
                try ByteOutput.write("d", to: dir.file("d.txt"))
                throw ReportFailed()
            }
        }
        #expect(dir.contents == ["a.txt", "b.txt", "c.txt"], "no d.txt, no temporary file")
        #expect(try String(contentsOfFile: dir.file("c.txt"), encoding: .utf8) == "old", "the old output kept")
        // Outside, as ever: at once.
        try ByteOutput.write("e", to: dir.file("e.txt"))
        #expect(FileManager.default.fileExists(atPath: dir.file("e.txt")))
    }
}

@Suite struct BatchOutputDirectory {
    @Test func theMessageNamesWhatMadeItABatch() throws {
        let dir = TempDir()
        try FileManager.default.createDirectory(atPath: dir.file("adir.wav"), withIntermediateDirectories: true)
        try Data([1]).write(to: URL(fileURLWithPath: dir.file("adir.wav/x.wav")))
        let r = BatchRequest(
            paths: [dir.file("adir.wav"), dir.file("out.wav")], extensions: ["wav"], outputDirectory: nil,
            outputExtension: "wav")
        #expect(
            throws: AudioPipelineError(
                .invalidConfiguration,
                dir.file("adir.wav") + " is a directory: a batch writes files: give an output directory, -o DIR")
        ) { try r.plan() }
        let many = BatchRequest(
            paths: ["a.wav", "b.wav"], extensions: ["wav"], outputDirectory: "-", outputExtension: "wav")
        #expect(
            throws: AudioPipelineError(
                .invalidConfiguration, "2 inputs (a.wav, b.wav): a batch writes files: give an output directory, -o DIR"
            )
        ) { try many.plan() }
    }
}
