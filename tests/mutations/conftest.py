import pathlib
import sys

# the table and its harness are plain modules beside the tests
sys.path.insert(0, str(pathlib.Path(__file__).parent))
