package hotrow

// SetFixedOrders makes client i of every cell update the hot rows at
// indexes orders[i mod len(orders)], in that order, in every transaction
// (instead of a random draw), so a test can cross two clients' orders.
// Each order must have Config.RowsPerTx distinct indexes below HotRows.
func SetFixedOrders(b *Bench, orders [][]int) { b.fixedOrders = orders }
