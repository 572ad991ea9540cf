def title(words):
    return " ".join(w.capitalize() for w in words.split())
