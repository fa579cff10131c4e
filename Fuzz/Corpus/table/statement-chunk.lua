local doc = { name = "built" }
for i = 1, 3 do doc.tags = doc.tags or {} doc.tags[i] = tostring(i) end
return doc