$ qalter -hold_jid_ad 260 264
