import BreezeCore

/// `breezectl completion bash|zsh|fish`: a completion script made from breezectl's own command table
/// (`Subcommand`: names, abstracts, usages) and its help (the options), so that it offers what breezectl takes.
enum ShellCompletion {
    static let shells = ["bash", "zsh", "fish"]
    static let usage = "completion bash|zsh|fish"

    /// A placeholder without its angle brackets: `<c|f>` → `c|f`.
    static func unbracketed(_ placeholder: String) -> String {
        String(placeholder.drop { $0 == "<" }.reversed().drop { $0 == ">" }.reversed())
    }
    /// As the subcommands' list in `--help` shows it.
    static let shortUsage = "completion <shell>"
    static let abstract = "Print a completion script for bash, zsh or fish."

    /// `breezectl help completion`.
    static let help = """
        OVERVIEW: \(abstract)

        USAGE: breezectl \(usage)

        The script completes subcommands, options and their values from breezectl's own command table. The .deb
        installs it for each shell already.

        EXAMPLES:
          source <(breezectl completion bash)
              Completion in this bash session.
          breezectl completion zsh > "${fpath[1]}/_breezectl"
              For zsh, in the first folder of its function path.
          breezectl completion fish > ~/.config/fish/completions/breezectl.fish
              For fish.

        """

    /// An option as the help text lists it: its names, the placeholder of its value if it takes one, its help.
    struct Option: Equatable {
        var names: [String]
        var value: String?
        var help: String

        /// The values a placeholder such as `<c|f>` lists; nil for a free one (`<seconds>`).
        var choices: [String]? {
            guard let value, value.contains("|") else { return nil }
            return ShellCompletion.unbracketed(value).split(separator: "|").map(String.init)
        }

        var takesPath: Bool { value == "<path>" }
    }

    /// A word that goes where a subcommand goes: breezectl's subcommands, then `completion` and `help`.
    struct Command {
        var name: String
        var abstract: String
        /// The words its first argument may be (`saved`: list, add, remove); empty when free or none.
        var choices: [String]
        /// Its options beyond the global ones.
        var options: [Option]
    }

    /// The options in a help text's OPTIONS section, one per line that starts with `-`.
    static func options(inHelp text: String) -> [Option] {
        var options: [Option] = []
        var inSection = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("OPTIONS:") {
                inSection = true
                continue
            }
            if !line.hasPrefix(" ") { inSection = false }
            let trimmed = line.drop { $0 == " " }
            guard inSection, !trimmed.isEmpty else { continue }
            guard trimmed.hasPrefix("-") else {
                // A help that goes on over the next line.
                if !options.isEmpty { options[options.count - 1].help += " " + trimmed.trimmed }
                continue
            }
            // "--units <c|f>           Temperature unit …": the names and placeholder, two spaces, the help.
            let columns =
                trimmed.firstRange(ofText: "  ").map {
                    [trimmed[..<$0.lowerBound], trimmed[$0.upperBound...]]
                } ?? [trimmed]
            var option = Option(names: [], value: nil, help: columns.count > 1 ? columns[1].trimmed : "")
            for spelling in columns[0].split(separator: ",") {
                let words = spelling.split(separator: " ")
                guard let name = words.first else { continue }
                option.names.append(String(name))
                if words.count > 1 { option.value = String(words[1]) }
            }
            options.append(option)
        }
        return options
    }

    static let globalOptions = options(inHelp: "OPTIONS:\n" + HelpText.globalOptions)

    static var commands: [Command] {
        let names = Subcommand.allCases.map(\.rawValue)
        return Subcommand.allCases.map { command in
            Command(
                name: command.rawValue, abstract: command.abstract, choices: choices(inUsage: command.usage),
                options: options(inHelp: HelpText.subcommand(command)).filter { !globalOptions.contains($0) })
        } + [
            Command(name: "completion", abstract: abstract, choices: shells, options: []),
            Command(name: "help", abstract: "Show help for a subcommand.", choices: names, options: []),
        ]
    }

    /// The fixed words of a usage line's arguments: `saved [list | add <id-or-query> | remove <id>]` gives list,
    /// add and remove; `location on|off` on and off. Placeholders and options are left out.
    static func choices(inUsage usage: String) -> [String] {
        let words = usage.split { " []|".contains($0) }.dropFirst()
        return words.filter { !$0.hasPrefix("<") && !$0.hasPrefix("-") }.map(String.init)
    }

    /// The script for `shell`; nil for a shell it does not know.
    static func script(for shell: String) -> String? {
        switch shell {
        case "bash": bash
        case "zsh": zsh
        case "fish": fish
        default: nil
        }
    }

    static func run(_ arguments: [String], output: TextOutput) -> Int32 {
        guard arguments.count == 1, let script = script(for: arguments[0]) else {
            output.error("breezectl: usage: breezectl \(usage)\nRun 'breezectl --help' for usage.\n")
            return CLIError.Kind.usage.rawValue
        }
        output.write(script)
        return 0
    }

    // MARK: bash

    static var bash: String {
        let all = globalOptions + commands.flatMap(\.options)
        let valued = all.filter { $0.value != nil }
        var valueCases = ""
        for option in valued {
            let names = option.names.joined(separator: "|")
            let reply =
                if option.takesPath { #"COMPREPLY=($(compgen -f -- "$cur"))"# } else if let choices = option.choices {
                    #"COMPREPLY=($(compgen -W "\#(choices.joined(separator: " "))" -- "$cur"))"#
                } else { "COMPREPLY=()" }
            valueCases += "        \(names)) \(reply); return ;;\n"
        }
        var commandCases = ""
        for command in commands where !command.choices.isEmpty || !command.options.isEmpty {
            var body: [String] = []
            if !command.options.isEmpty {
                body.append("options+=\" \(command.options.flatMap(\.names).joined(separator: " "))\"")
            }
            if !command.choices.isEmpty {
                body.append("(( arguments == 0 )) && words=\"\(command.choices.joined(separator: " "))\"")
            }
            commandCases += "        \(command.name)) \(body.joined(separator: "; ")) ;;\n"
        }
        return """
            # bash completion for breezectl                            -*- shell-script -*-
            # Generated by `breezectl completion bash` from breezectl's command table.

            _breezectl() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=""
                (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
                case $prev in
            \(valueCases)    esac
                local subcommand="" arguments=0 i=1 word
                while (( i < COMP_CWORD )); do
                    word=${COMP_WORDS[i]}
                    case $word in
                        \(valued.flatMap(\.names).joined(separator: "|"))) i=$((i + 1)) ;;
                        -*) ;;
                        *) if [[ -z $subcommand ]]; then subcommand=$word; else arguments=$((arguments + 1)); fi ;;
                    esac
                    i=$((i + 1))
                done
                local options="\(globalOptions.flatMap(\.names).joined(separator: " "))" words=""
                case $subcommand in
                    "") words="\(commands.map(\.name).joined(separator: " "))" ;;
            \(commandCases)    esac
                [[ $cur == -* ]] && words=$options
                COMPREPLY=($(compgen -W "$words" -- "$cur"))
            }
            complete -F _breezectl breezectl

            """
    }

    // MARK: zsh

    /// Text inside single quotes.
    static func singleQuoted(_ text: String) -> String {
        "'" + text.replacingText("'", with: #"'\''"#) + "'"
    }

    /// An `_arguments` spec for `option`: `--units[Temperature unit …]:c|f:(c f)`.
    static func zshSpec(_ option: Option) -> [String] {
        let help = option.help.replacingText("\\", with: "\\\\").replacingText("[", with: "\\[")
            .replacingText("]", with: "\\]").replacingText(":", with: "\\:")
        var value = ""
        if let placeholder = option.value {
            let name = ShellCompletion.unbracketed(placeholder)
            value =
                if option.takesPath { ":\(name):_files" } else if let choices = option.choices {
                    ":\(name):(\(choices.joined(separator: " ")))"
                } else { ":\(name): " }
        }
        return option.names.map { singleQuoted("\($0)[\(help)]\(value)") }
    }

    static var zsh: String {
        let describe = commands.map { command in
            "        " + singleQuoted(command.name.replacingText(":", with: "\\:") + ":" + command.abstract)
        }
        let global = globalOptions.flatMap(zshSpec).map { "        " + $0 }
        var cases = ""
        for command in commands where !command.choices.isEmpty || !command.options.isEmpty {
            var specs = ["$global"] + command.options.flatMap(zshSpec)
            if !command.choices.isEmpty {
                specs.append(singleQuoted("1:argument:(\(command.choices.joined(separator: " ")))"))
                specs.append(singleQuoted("*:: :"))
            }
            cases += "                \(command.name)) _arguments \(specs.joined(separator: " ")) ;;\n"
        }
        return """
            #compdef breezectl
            # zsh completion for breezectl, generated by `breezectl completion zsh` from breezectl's command table.

            _breezectl() {
                local -a subcommands global
                subcommands=(
            \(describe.joined(separator: "\n"))
                )
                global=(
            \(global.joined(separator: "\n"))
                )
                local curcontext=$curcontext state line
                _arguments -C $global '1:subcommand:->subcommand' '*::argument:->argument'
                case $state in
                    subcommand) _describe -t subcommands 'breezectl subcommand' subcommands ;;
                    argument)
                        case $words[1] in
            \(cases)                *) _arguments $global ;;
                        esac
                        ;;
                esac
            }

            _breezectl "$@"

            """
    }

    // MARK: fish

    static func fishOption(_ option: Option, condition: String?) -> String {
        var line = "complete -c breezectl"
        if let condition { line += " -n \(singleQuotedForFish(condition))" }
        for name in option.names {
            line += name.hasPrefix("--") ? " -l \(name.dropFirst(2))" : " -s \(name.dropFirst())"
        }
        if option.takesPath {
            line += " -r -F"
        } else if let choices = option.choices {
            line += " -x -a \(singleQuotedForFish(choices.joined(separator: " ")))"
        } else if option.value != nil {
            line += " -x"
        }
        return line + " -d \(singleQuotedForFish(option.help))"
    }

    /// Text inside fish's single quotes, where `\` and `'` are escaped with a backslash.
    static func singleQuotedForFish(_ text: String) -> String {
        "'" + text.replacingText("\\", with: "\\\\").replacingText("'", with: "\\'") + "'"
    }

    static var fish: String {
        let names = commands.map(\.name).joined(separator: " ")
        var lines = [
            "# fish completion for breezectl, generated by `breezectl completion fish` from breezectl's command table.",
            "complete -c breezectl -f",
        ]
        for command in commands {
            lines.append(
                "complete -c breezectl -n \(singleQuotedForFish("not __fish_seen_subcommand_from \(names)")) -a \(command.name) -d \(singleQuotedForFish(command.abstract))"
            )
        }
        lines += globalOptions.map { fishOption($0, condition: nil) }
        for command in commands {
            let condition = "__fish_seen_subcommand_from \(command.name)"
            lines += command.options.map { fishOption($0, condition: condition) }
            if !command.choices.isEmpty {
                lines.append(
                    "complete -c breezectl -n \(singleQuotedForFish(condition)) -a \(singleQuotedForFish(command.choices.joined(separator: " ")))"
                )
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension Substring {
    fileprivate var trimmed: String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}
