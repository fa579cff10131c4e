error("\255\254 bad")
