$ qconf -Arqs named-rule.input
