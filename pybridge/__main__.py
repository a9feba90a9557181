from pybridge.entry import run

run()
