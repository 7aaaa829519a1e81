set(stdin "${FIXTURES}/catalog/small.json")
