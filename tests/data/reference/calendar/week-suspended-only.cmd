$ qconf -Acal week-suspended-only.input
