$ qconf -Arqs consumable-lic.input
