# recipes: sources, programs, tests and benches of this subsystem.
