module example.com/toposched-example

go 1.19

require github.com/libtopo-sched/libtopo-sched/bindings/go v0.0.0

// This example builds against the binding in this source tree. A module of your own does
// the same with the path of your checkout, or drops the replace to fetch a release.
replace github.com/libtopo-sched/libtopo-sched/bindings/go => ../../bindings/go
