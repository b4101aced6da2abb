import Foundation

/// The rules for a profile's optional details (avatar, gender, birthday, region), shared by
/// server and clients. Each may be given empty to remove it; each check throws a
/// ``ParleyError`` whose code names the field.
public enum ProfileRules {
    /// The earliest birthday accepted.
    public static let earliestBirthday = "1900-01-01"

    /// A file id: 1 to ``Limits/maxFileIDLength`` printable ASCII characters, no spaces.
    public static func validateAvatar(_ avatar: String) throws {
        guard TextRules.isFileIDOrEmpty(avatar) else {
            throw ParleyError(
                .avatarInvalid,
                "Avatar must be a file id of 1 to \(Limits.maxFileIDLength) printable ASCII characters, or empty.")
        }
    }

    public static func validateGender(_ gender: String) throws {
        guard gender.isEmpty || Gender.known.contains(Gender(rawValue: gender)) else {
            throw ParleyError(.genderInvalid, "Gender must be 'female', 'male', 'other' or empty.")
        }
    }

    /// A calendar date `YYYY-MM-DD` from ``earliestBirthday`` to `today` (UTC, the same form).
    public static func validateBirthday(_ birthday: String, today: String) throws {
        guard birthday.isEmpty || (isCalendarDate(birthday) && (earliestBirthday...today).contains(birthday)) else {
            throw ParleyError(
                .birthdayInvalid, "Birthday must be a date written YYYY-MM-DD, from \(earliestBirthday) to today.")
        }
    }

    /// An ISO 3166-1 alpha-2 region (`CN`), optionally with an ISO 3166-2 subdivision code of
    /// 1 to 3 letters or digits (`CN-GD`, `US-CA`), in capitals.
    public static func validateRegion(_ region: String) throws {
        guard region.isEmpty || isRegion(region) else {
            throw ParleyError(
                .regionInvalid,
                "Region must be an ISO 3166 code in capitals: a country (CN) or a country and a subdivision (CN-GD).")
        }
    }

    /// `YYYY-MM-DD` today, in UTC, for ``validateBirthday(_:today:)``.
    public static func today(_ milliseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        return date.formatted(.iso8601.year().month().day().dateSeparator(.dash))
    }

    private static func isCalendarDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.map(\.count) == [4, 2, 2], parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month)
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return (1...days).contains(day)
    }

    private static func isRegion(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let country = parts.first, country.count == 2, country.allSatisfy(\.isUppercaseASCIILetter),
            countries.contains(String(country))
        else { return false }
        guard parts.count == 2 else { return parts.count == 1 }
        return (1...3).contains(parts[1].count)
            && parts[1].allSatisfy { $0.isUppercaseASCIILetter || $0.isASCIIDigit }
    }

    /// The two-letter regions ICU knows.
    private static let countries = Set(
        Locale.Region.isoRegions.map(\.identifier).filter { $0.count == 2 && $0.allSatisfy(\.isUppercaseASCIILetter) })
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
    fileprivate var isUppercaseASCIILetter: Bool { isASCII && isUppercase }
}
