$ (on host localhost) qrls 303
