module mltwin.dev/upstream-cases

go 1.21
