def nat():
    n = 0
    while True:
        yield n
        n += 1


total = 0
for x in nat():
    if x >= 100000:
        break
    total += x
print(total)
