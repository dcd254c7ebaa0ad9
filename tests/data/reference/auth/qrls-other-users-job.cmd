$ qrls 302
