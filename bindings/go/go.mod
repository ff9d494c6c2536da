module github.com/libtopo-sched/libtopo-sched/bindings/go

go 1.19
