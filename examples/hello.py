"""The smallest Plush program in Python: write a record and read it back."""
import plush

with plush.open("hello.pool", small=True) as db:
    db[b"greeting"] = b"hello!!!"
    print("greeting:", db[b"greeting"].decode())
