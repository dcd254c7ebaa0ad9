$ qrls 303
