extension HistoryPage: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        writer.raw(#"{"messages":"#)
        try writer.array(messages) { try $0.message($1) }
        writer.raw(#","hasMore":"#)
        writer.bool(hasMore)
        writer.raw("}")
    }
}

extension MessageSearchPage: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        writer.raw(#"{"hits":"#)
        try writer.array(hits) { writer, hit in
            writer.raw(#"{"message":"#)
            try writer.message(hit.message)
            writer.raw(#","highlights":"#)
            writer.array(hit.highlights) { writer, range in
                writer.raw(#"{"start":"#)
                writer.integer(Int64(range.start))
                writer.raw(#","length":"#)
                writer.integer(Int64(range.length))
                writer.raw("}")
            }
            writer.raw("}")
        }
        writer.nextCursor(nextCursor)
        writer.raw("}")
    }
}
