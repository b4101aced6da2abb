import Testing

@testable import ParleyFiles

/// Reading S3's answers: a ListObjectsV2 page and an error.
struct S3XMLTests {
    @Test func aListingGivesItsKeysUnescapedAndItsContinuationToken() {
        let listing = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>t/</Prefix>\
            <KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated>\
            <Contents><Key>t/a&amp;b</Key><Size>3</Size></Contents>
            <Contents><Key>t/&#x3C;c&#62;&quot;&apos;</Key><Size>0</Size></Contents>
            <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
            </ListBucketResult>
            """
        #expect(S3XML.texts(of: "Key", in: listing) == ["t/a&b", "t/<c>\"'"])
        #expect(S3XML.text(of: "IsTruncated", in: listing) == "true")
        #expect(
            S3XML.text(of: "NextContinuationToken", in: listing) == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
        #expect(S3XML.texts(of: "CommonPrefixes", in: listing).isEmpty)
    }

    @Test func anErrorGivesItsCodeAndMessage() {
        let error = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message>\
            <BucketName>nope</BucketName></Error>
            """
        #expect(S3XML.text(of: "Code", in: error) == "NoSuchBucket")
        #expect(S3XML.text(of: "Message", in: error) == "The specified bucket does not exist")
        #expect(S3XML.text(of: "Resource", in: error) == nil)
    }

    @Test func anAmpersandThatIsNoEntityIsKept() {
        #expect(S3XML.unescaped("a & b &unknown; &#xZZ; &amp") == "a & b &unknown; &#xZZ; &amp")
    }
}
