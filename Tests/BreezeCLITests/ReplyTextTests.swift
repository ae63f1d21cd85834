import BreezeCLI
import Testing

/// Replies rendered for the terminal: no trap on any number, no control character from the daemon.
@Suite struct ReplyTextTests {
    static let commands = ["status", "where", "air", "pollen", "climate", "weather", "watch", "search", "lookup", "select", "here",
                           "saved", "popular", "location", "refresh"]

    static let hostileNumbers = [
        "{\"class\":\"AIR\",\"state\":\"fresh\",\"us_aqi\":1e300,\"pollutants\":[{\"symbol\":\"PM2.5\",\"value\":-1e300,\"code\":\"pm2_5\"}]}",
        "{\"class\":\"AIR\",\"state\":\"fresh\",\"us_aqi\":-1e300}",
        "{\"class\":\"CLIMATE\",\"state\":\"fresh\",\"month\":1e300,\"day\":-1e300,\"points\":[{\"year\":1e300,\"max_c\":1e308},{\"year\":-1e300,\"max_c\":-1e308}],\"change_c\":1e308}",
        "{\"class\":\"CLIMATE\",\"state\":\"fresh\",\"month\":-9e18,\"day\":9.3e18,\"points\":[{\"year\":9.3e18,\"max_c\":1}]}",
        "{\"class\":\"PLACES\",\"places\":[{\"geoname_id\":1e300,\"city\":\"X\",\"country\":\"Y\"},{\"geoname_id\":-1e300}]}",
        "{\"class\":\"LOCATION\",\"name\":\"X\",\"latitude\":1e300,\"longitude\":-1e300,\"accuracy\":1e300,\"distance_m\":1e300}",
        "{\"class\":\"PLACE\",\"name\":\"X\",\"distance_m\":1e300}",
        "{\"class\":\"POLLEN\",\"state\":\"fresh\",\"entries\":[{\"name\":\"birch\",\"grains\":1e300}],\"highest\":1e300}",
        "{\"class\":\"WEATHER\",\"state\":\"fresh\",\"temperature_c\":1e308,\"apparent_c\":-1e308,\"humidity\":1e300,\"wind_kmh\":-1e300,\"daily\":[{\"date\":\"x\",\"max_c\":1e308,\"min_c\":-1e308,\"precipitation_probability\":1e300}]}",
    ]

    @Test(arguments: hostileNumbers)
    func hugeNumbersRenderWithoutATrap(line: String) {
        for command in Self.commands {
            _ = ReplyText.render(Array(line.utf8), command: command)
            _ = ReplyText.render(Array(line.utf8), command: command, json: true)
            _ = ReplyText.render(Array(line.utf8), command: command, format: "{aqi} {pm2_5} {latitude} {pollen} {temp} {high} {low}")
            _ = ReplyText.render(Array(line.utf8), command: command, waybar: true)
        }
    }

    static let hostileNames = [
        "{\"class\":\"LOCATION\",\"name\":\"Bern\\u001b[2J\\u0007\",\"city\":\"B\\re\",\"source\":\"gps\\u001b]0;x\\u0007\"}",
        "{\"class\":\"PERMISSION\",\"state\":\"denied\\u001b\",\"message\":\"no\\r\\nway\",\"hint\":\"\\u009b31m\"}",
        "{\"class\":\"AIR\",\"state\":\"failed\",\"reason\":\"transport: \\u001b[31mred\",\"us_aqi\":20,\"label\":\"x\\u0000\"}",
        "{\"class\":\"POLLEN\",\"state\":\"fresh\",\"provider\":\"\\u001b\",\"entries\":[{\"name\":\"\\u001b\",\"level_name\":\"\\u0007\"}]}",
        "{\"class\":\"AIR\",\"state\":\"fresh\",\"us_aqi\":20,\"tips\":[\"\\u001b[2J\\r\",\"\\u009b\"]}",
        "{\"class\":\"POLLEN\",\"state\":\"fresh\",\"tips\":[\"\\u0007\\n\"],\"entries\":[]}",
        "{\"class\":\"PLACES\",\"places\":[{\"geoname_id\":1,\"city\":\"Z\\u001b[2J\",\"admin1\":\"\\r\",\"country\":\"\\u0008\"}]}",
        "{\"class\":\"PLACE\",\"name\":\"Z\\u001b[2J\"}",
        "{\"class\":\"ERROR\",\"code\":\"\\u001b\",\"message\":\"\\u001b[2J\"}",
    ]

    @Test(arguments: hostileNames)
    func controlCharactersFromTheDaemonAreShownVisibly(line: String) {
        for command in Self.commands {
            for text in [ReplyText.render(Array(line.utf8), command: command),
                         ReplyText.render(Array(line.utf8), command: command, format: "{name} {city} {state} {source}")] {
                let body = text.hasSuffix("\n") ? String(text.dropLast()) : text
                let controls = body.unicodeScalars.filter {
                    ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value)
                }
                #expect(controls.isEmpty, "\(command): \(text.debugDescription)")
            }
        }
    }

    @Test func aNameIsStillPrinted() {
        let text = ReplyText.render(Array("{\"class\":\"PLACE\",\"name\":\"Bern\\u001b, Switzerland\",\"distance_m\":1500}".utf8), command: "lookup")
        #expect(text == "Bern\\x1b, Switzerland (1.5 km away)\n")
    }

    @Test(arguments: ["", "{", "[]", "null", "\"x\"", "{\"class\":1}", "{\"class\":\"AIR\",\"us_aqi\":\"x\"}"])
    func malformedLinesRenderWithoutATrap(line: String) {
        for command in Self.commands { _ = ReplyText.render(Array(line.utf8), command: command) }
        _ = ReplyText.render([0xFF, 0xFE], command: "status")
    }
}
