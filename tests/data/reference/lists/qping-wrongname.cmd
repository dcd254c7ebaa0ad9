qping -info vm 6444 execd 1
