$ qconf -Arqs filter-order.input
