module toposched-example

go 1.19

require toposched v0.0.0

replace toposched => ../../bindings/go
