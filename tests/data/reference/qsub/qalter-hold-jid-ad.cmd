$ qalter -hold_jid_ad 259 264
