import ArgumentParser

/// `bmlua`: runs Lua scripts against BloodMagic's registry, the way `lua` runs scripts.
@main
struct BMLua: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bmlua",
        abstract: "Run Lua scripts with BloodMagic's spells, in a sandboxed Lua 5.4.",
        discussion: """
            Examples:
              bmlua Examples/hello.lua Ada        run a script; its arguments are in `arg`
              bmlua -e 'print(1 + 1)'             run a string
              echo 'print(arg[0])' | bmlua -      run standard input
              bmlua --max-instructions 1000000 -e 'while true do end'
            """,
        version: "0.1.0",
        subcommands: [RunCommand.self, ReplCommand.self],
        defaultSubcommand: RunCommand.self
    )
}
