module toposched

go 1.19
